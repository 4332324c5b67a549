import os
from typing import Any, Dict, Iterable, List, Union

from ._json_doc import Document

class Ledger(Document):
    records: int
    lines: int
    warnings: List[str]
    def __init__(self, text: str, records: int = ..., lines: int = ..., warnings: Iterable[str] = ...) -> None: ...
    def function(self, name: str) -> Dict[str, Any]: ...

def ledger(*sources: Union[str, "os.PathLike[str]", Any]) -> Ledger: ...
