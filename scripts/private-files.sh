# Sourced by scripts/up.sh. What `make up` writes under .data, and the file its output may be
# redirected to, can hold secrets (the master key, the database address, the bootstrap token the
# first start prints): they are made readable by their owner only, whatever the caller's umask.

# Creates the file empty if missing, and makes it 0600 either way, before anything is written to
# it: a redirection would create it with the umask's mode (usually 0644), and an existing file
# keeps the mode it has.
private_file() {
  (umask 077 && : >>"$1")
  chmod 600 "$1"
}

# When this shell's standard output or error is a regular file of ours (`make up >up.log 2>&1`),
# makes it 0600 before the bootstrap token can be printed there. Linux only (/proc); elsewhere, or
# for a terminal or a pipe, it does nothing.
restrict_redirected_output() {
  local fd target
  for fd in 1 2; do
    target="$(readlink -f "/proc/$$/fd/$fd" 2>/dev/null)" || continue
    if [[ -f "$target" && -O "$target" ]]; then chmod 600 "$target"; fi
  done
  return 0
}
