"""Studies over real data: the data sets (:mod:`.datasets`) and Barber & Bishop's Table 1 (:mod:`.table1`)."""

__all__: list[str] = []  # the studies are imported by module (ensemble_lib.studies.table1, ...)
