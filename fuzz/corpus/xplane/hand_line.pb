
	/host:CPU"host