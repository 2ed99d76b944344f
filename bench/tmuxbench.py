"""What the terminal benches share: the fake provider started on a script, and a tmux server to
drive the TUI in (keys sent, the screen read, a key's time to the screen)."""
import json, statistics, subprocess, time


def start_fake(fake_bin, work, script):
    """Starts the fake provider cycling `script` (written to WORK/script.json); returns it and its URL."""
    with open(f"{work}/script.json", "w") as f:
        json.dump(script, f)
    fake = subprocess.Popen([fake_bin, "--script", f"{work}/script.json", "--cycle", "--no-stdin"],
                            stdout=subprocess.PIPE, text=True)
    return fake, fake.stdout.readline().strip()


class Tmux:
    """A private tmux server (socket `sock`) with one session, `t`."""

    def __init__(self, sock):
        self.sock = sock

    def __call__(self, *args):
        return subprocess.run(["tmux", "-L", self.sock, *args], capture_output=True, text=True).stdout

    def screen(self):
        return self("capture-pane", "-p", "-t", "t")

    def wait_for(self, pred, timeout=20.0):
        """The screen once `pred(screen)` holds (polled every 2 ms); exits when it never does."""
        end = time.time() + timeout
        while time.time() < end:
            s = self.screen()
            if pred(s):
                return s
            time.sleep(0.002)
        alive = subprocess.run(["tmux", "-L", self.sock, "has-session", "-t", "t"],
                               capture_output=True).returncode == 0
        state = "the program is still running" if alive else "no tmux session: the program exited"
        raise SystemExit(f"timed out ({state}); screen:\n" + self.screen())

    def typing(self, shown):
        """The median key-to-screen of 20 keys, `shown(screen, typed)` saying when one is on screen."""
        typed, lat = "", []
        for ch in "abcdefghijklmnopqrst":
            typed += ch
            start = time.time()
            self("send-keys", "-t", "t", "-l", ch)
            self.wait_for(lambda s: shown(s, typed))
            lat.append((time.time() - start) * 1000)
        return statistics.median(lat)
