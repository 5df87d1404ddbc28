"""Files a command writes for people and programs (exports, reports, pages), written whole
or not at all.

A file is written to a temporary file beside it and renamed into place only once it is
complete, so an interrupted or failing command leaves the file it was to write as it was
(missing, or its old content), never half of a new one that a reader would take for the
whole.  The rename is atomic within one file system; the temporary file is hidden (a leading
dot) and removed on any error or interrupt the process lives through.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import IO, Iterator, Optional, Union


def temporary_beside(target: Path) -> Path:
    """Where ``target`` is written before it is renamed into place: hidden, and apart for
    each process, so two commands writing the same file never write into each other's."""
    return target.with_name(f".{target.name}.tmp-{os.getpid()}")


@contextlib.contextmanager
def whole_file(path: Union[str, Path], mode: str = "w", encoding: Optional[str] = "utf-8") -> Iterator[IO]:
    """Open ``path`` for writing (``mode`` "w" or "wb") so that it appears only complete: a
    temporary file beside it, flushed to disk and renamed over ``path`` when the block ends
    normally, removed when it raises.  A ``path`` that is there and is no regular file (a
    device such as ``/dev/stdout``, a pipe) is written as it is: renaming over it would
    replace the device, not write to it."""
    target = Path(path)
    if target.exists() and not target.is_file():
        with open(target, mode, encoding=None if "b" in mode else encoding) as stream:
            yield stream
        return
    temporary = temporary_beside(target)
    try:
        with open(temporary, mode, encoding=None if "b" in mode else encoding) as stream:
            yield stream
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):  # there may be nothing to remove, or nowhere
            temporary.unlink()
        raise


def inside(path: Union[str, Path], directory: Union[str, Path]) -> bool:
    """Whether ``path`` is ``directory`` or lies below it (symbolic links followed): an output
    that would land in a dataset the command reads, or a dataset among those verify keeps."""
    return Path(path).resolve().is_relative_to(Path(directory).resolve())
