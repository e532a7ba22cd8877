# Sourced by the experiment scripts that take a space file (space-ab.sh, explore-family.sh):
# space_family FILE prints the family a space file defines, or a one-line error and fails (2): call it
# as `family=$(space_family "$file") || exit 2`.
space_family() {
  python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["family"])' "$1" 2>/dev/null ||
    { echo "$(basename "$0"): $1: not a space file with a family; give one written by scripts/derive_space.py" >&2; return 2; }
}
