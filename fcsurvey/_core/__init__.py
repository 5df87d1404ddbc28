"""The compiled core (``_fccore``): deal generation and the solver's search."""
