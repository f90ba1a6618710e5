#!/usr/bin/env bash
# Regenerates the app icons in icons/ (a flame on a dark tile) with Debian's
# ImageMagick. Uses /usr/bin/convert on purpose: on some images
# /usr/local/bin/convert is a stand-in that only converts to PPM.
# Tauri wants RGBA PNGs (PNG32:) and an .ico for the bundle list.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$root/icons"
convert=/usr/bin/convert
if [[ ! -x "$convert" ]]; then
    echo "icons.sh: $convert not found; install it with: sudo apt-get install imagemagick" >&2
    exit 1
fi
mkdir -p "$out"

master="$out/icon.png"
"$convert" -size 512x512 xc:none \
    -fill '#2a1c15' -draw 'roundrectangle 16,16 495,495 96,96' \
    -fill '#e8590c' -draw "path 'M 256 432 C 166 432 126 370 138 300 C 150 232 202 204 214 136 C 252 172 258 210 252 242 C 276 214 292 178 286 124 C 352 176 384 250 374 312 C 364 382 320 432 256 432 Z'" \
    -fill '#ffb703' -draw "path 'M 256 424 C 214 424 194 392 200 356 C 206 320 236 300 246 268 C 272 294 278 320 272 342 C 288 332 298 316 300 300 C 320 330 322 366 314 388 C 302 412 282 424 256 424 Z'" \
    -fill '#7a4a24' -draw 'roundrectangle 140,430 372,458 14,14' \
    "PNG32:$master"

"$convert" "$master" -resize 32x32 "PNG32:$out/32x32.png"
"$convert" "$master" -resize 128x128 "PNG32:$out/128x128.png"
"$convert" "$master" -resize 256x256 "PNG32:$out/128x128@2x.png"
"$convert" "$master" -define icon:auto-resize=256,128,64,48,32,16 "$out/icon.ico"
echo "icons written to $out"
