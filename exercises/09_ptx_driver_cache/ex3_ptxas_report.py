"""Exercise 9.3 (a compiler piece): read a kernel's resources from `ptxas -v`.

`ptxas -v` reports what each kernel uses (see `exercises/09_ptx_driver_cache/ptxas_report.txt` and
chapter 9). Write `parse_report(text)`: for every *entry function* (a line "Compiling entry
function 'NAME'"), a dict with

- "registers": from "Used N registers";
- "stack_frame", "spill_stores", "spill_loads": from the line "N bytes stack frame, N bytes spill
  stores, N bytes spill loads" that follows "Function properties for NAME";
- "shared_bytes": from "N bytes smem" on the "Used ..." line, 0 when the line has none.

Missing numbers are 0. A "Function properties for" block of a function that is not an entry (a
device function the kernels call) is not a kernel: leave it out. `re` helps.
"""


def parse_report(text: str) -> dict[str, dict[str, int]]:
    raise NotImplementedError("exercise 9.3: parse_report")
