import os
from typing import Literal, Optional, Sequence, Union

from ._json_doc import Document

_Path = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]

def analyze_hosts(inputs: Sequence[_Path], run: Optional[str] = ..., top: int = ...,
                  args: Literal["analysis", "known", "all", "none"] = ..., jobs: int = ...) -> Document: ...
def steps_hosts(inputs: Sequence[_Path], run: Optional[str] = ..., step: Optional[str] = ..., xprof: bool = ...,
                straggler_ratio: float = ..., args: Literal["analysis", "known", "all", "none"] = ...,
                jobs: int = ..., device: bool = ..., memory: bool = ..., collectives: bool = ...,
                align: bool = ...) -> Document: ...
