"""Print every AcroForm field of a PDF: name, type, value, tooltip and on states."""
import sys

from pypdf import PdfReader


def main(path: str) -> int:
    reader = PdfReader(path)
    fields = reader.get_fields() or {}
    if not fields:
        print("no form fields found")
        return 1
    for name, field in sorted(fields.items()):
        kind = field.get("/FT", "?")
        value = field.get("/V", "")
        tooltip = field.get("/TU", "")
        states = field.get("/_States_", [])
        print(f"{name}\t{kind}\t{value!s}\t{tooltip!s}\t{' '.join(states)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
