"""How many times a kernel reads an array: counted in its tile IR, for the tests of chapter 10's
kernel exercises (a memory-bound kernel is as fast as the bytes it moves)."""
import re

DEFINITION = re.compile(r"^\s*(%[\w.]+(?:,\s*%[\w.]+)*)\s+=\s+(\w+)\b(.*)$")
BLOCK_ARGUMENTS = re.compile(r"^\s*\^body\((.*)\):")
VALUE = re.compile(r"%[\w.]+")


def loads_from(ttir: str, argument: str) -> int:
    """The load ops whose pointers are computed from the kernel's pointer argument `argument`.

    A value computed from a value computed from the argument is one too, followed in text order,
    and a loop's carried value is one when its initial value is (the pointer `x_ptr += BLOCK`)."""
    derived, loads, carried = {"%" + argument}, 0, None
    for line in ttir.splitlines():
        statement = line.split(" : ")[0]
        if block := BLOCK_ARGUMENTS.match(statement):
            if carried is not None:  # a `for` body: its arguments after the induction variable
                for value, initial in zip(VALUE.findall(block.group(1))[1:], carried):
                    if initial in derived:
                        derived.add(value)
            carried = None
            continue
        definition = DEFINITION.match(statement)
        op = definition.group(2) if definition else statement.split()[0] if statement.split() else ""
        operands = VALUE.findall(definition.group(3) if definition else statement)
        carried = operands[3:] if op == "for" else None
        if op == "load":
            loads += operands[0] in derived
        elif definition and any(operand in derived for operand in operands):
            derived.update(VALUE.findall(definition.group(1)))
    return loads
