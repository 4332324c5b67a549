from typing import Any, Callable, List, Mapping, Optional, Sequence, Tuple

from ._json_doc import Document

DEFAULT_ATOL: float
DEFAULT_RTOL: float

class BenchResult(Document):
    def table(self) -> str: ...
    def print(self, file: Any = ...) -> None: ...

def fmt_seconds(s: Optional[float]) -> str: ...
def python_runtime() -> Tuple[str, str, List[Tuple[str, str]]]: ...
def bench(fn: Callable[..., Any], *args: Any, ready: Optional[Callable[[Any], Any]] = ..., check: Any = ...,
          atol: float = ..., rtol: float = ..., repeats: int = ..., warmup: int = ...,
          dispatch: Optional[Callable[..., Any]] = ..., setup: Optional[Callable[[], Any]] = ...,
          kwargs: Optional[Mapping[str, Any]] = ..., name: Optional[str] = ..., boundary: Optional[str] = ...,
          shapes: Optional[Mapping[str, Sequence[int]]] = ..., dtype: Optional[str] = ..., reference: Any = ...,
          backend: Optional[str] = ..., device: Optional[str] = ...,
          versions: Optional[Mapping[str, str]] = ..., equal_nan: bool = ...) -> BenchResult: ...
