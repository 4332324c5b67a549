
	/host:CPU	"host