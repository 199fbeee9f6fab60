"""Studies over real data: the data sets (:mod:`.datasets`) and Barber & Bishop's Table 1 (:mod:`.table1`)."""
