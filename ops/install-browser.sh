#!/usr/bin/env sh
# Installs the headless browser the console's browser test (app ConsoleBrowserIT) drives:
# Debian's chromium and chromium-driver, so nothing is downloaded at test time.
# Idempotent; never fails the build: when it cannot install, it says why and exits 0
# (the test then skips, or fails when CI=true).
#
# The build passes its skip flags (skipTests, skipITs, maven.test.skip) as arguments: when one of
# them is "true" no test will want the browser, so nothing is installed.
set -u
for flag in "$@"; do
  if [ "$flag" = "true" ]; then
    exit 0
  fi
done
CHROMIUM=/usr/bin/chromium
DRIVER=/usr/bin/chromedriver
if [ -x "$CHROMIUM" ] && [ -x "$DRIVER" ]; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-browser: no apt-get here; install Chromium and its driver as $CHROMIUM and $DRIVER yourself" >&2
  exit 0
fi
if [ "$(id -u)" != "0" ]; then
  echo "install-browser: not root; run 'sudo apt-get install chromium chromium-driver' to get $CHROMIUM and $DRIVER" >&2
  exit 0
fi
echo "install-browser: installing chromium and chromium-driver with apt-get"
if apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver; then
  exit 0
fi
echo "install-browser: apt-get could not install chromium and chromium-driver (see above)" >&2
exit 0
