#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Types at a U-Boot prompt as a person at the serial console would.

usage: uboot_console.py LOG TIMEOUT [--cmd LINE]... -- QEMU ARGS...

Starts QEMU (its serial console on stdin/stdout), stops U-Boot's autoboot
with a key press, waits for the prompt before each --cmd line and sends it;
the last line is expected to boot the payload. Everything QEMU prints goes
to LOG. Exits with QEMU's status (the image's semihosting exit status), or
124 when TIMEOUT seconds pass first, 125 when U-Boot never prompts, 126 when
it prompts again after the last line (the boot command failed).
"""
import os
import select
import subprocess
import sys
import time

AUTOBOOT = b"Hit any key to stop autoboot"
PROMPT = b"=> "


def main():
    log_path, timeout = sys.argv[1], float(sys.argv[2])
    args = sys.argv[3:]
    cmds = []
    while args and args[0] == "--cmd":
        cmds.append(args[1])
        args = args[2:]
    if not args or args[0] != "--":
        raise SystemExit("usage: uboot_console.py LOG TIMEOUT [--cmd LINE]... -- QEMU ARGS...")
    qemu = subprocess.Popen(args[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    deadline = time.monotonic() + timeout
    seen = b""
    cmds_sent = False
    waiting = AUTOBOOT if cmds else None	# with no commands, autoboot runs
    with open(log_path, "wb") as log:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                qemu.kill()
                qemu.wait()
                return 124 if waiting is None else 125
            ready, _, _ = select.select([qemu.stdout], [], [], min(left, 0.5))
            if ready:
                chunk = os.read(qemu.stdout.fileno(), 4096)
                if not chunk:
                    return qemu.wait()
                log.write(chunk)
                log.flush()
                seen += chunk
            if waiting is None and cmds_sent and PROMPT in seen:
                qemu.kill()
                qemu.wait()
                return 126
            if waiting is not None and waiting in seen:
                seen = seen[seen.index(waiting) + len(waiting):]
                if waiting == AUTOBOOT:
                    qemu.stdin.write(b"\n")
                else:
                    qemu.stdin.write(cmds.pop(0).encode() + b"\n")
                    cmds_sent = not cmds
                qemu.stdin.flush()
                waiting = PROMPT if cmds else None


if __name__ == "__main__":
    sys.exit(main())
