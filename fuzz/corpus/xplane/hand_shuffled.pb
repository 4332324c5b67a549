
|*correlation_id"
op%ZT"" ∏–"êNÙËt*step_num"step* c	/host:CPU