"""Playing: the game model (:mod:`.game`), its session rules (:mod:`.session`), the bots,
simulation and matches, reviews, the daily challenge and the records store.  Imports the
advice, the engine and the core; never a surface (the CLI, the web app)."""
