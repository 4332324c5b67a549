
%	/host:CPUd"