"""fcsurvey: survey ranges of Microsoft-numbered FreeCell deals."""

__version__ = "0.1.0"
