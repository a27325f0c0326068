"""The engine: the numba kernels (:mod:`._kernels`, one file for numba's cache) and what drives
them -- the dynamic programs (:mod:`.dp`, :mod:`.target`), the one table store (:mod:`.tables`),
one turn's values in plain Python (:mod:`.turn`), exact distributions and whole games in the
kernels (:mod:`.playout`).  Imports only :mod:`solver.core`."""
