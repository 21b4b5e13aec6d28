"""``python -m skillsite``."""
from skillsite.cli import main

main(prog_name="skillsite")
