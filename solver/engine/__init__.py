"""The engine: the numba kernels (:mod:`.kernels`, a package split by subsystem, imported by
the engine only) and what drives them -- the dynamic programs (:mod:`.dp`, :mod:`.target`),
the one table store (:mod:`.tables`), one turn's values in plain Python (:mod:`.turn`), exact
distributions and whole games in the kernels (:mod:`.playout`).  Imports only :mod:`solver.core`."""
