"""Loads each console page afresh in headless Chromium and reads the browser's own timing: the
console marks "view-ready" when a page shows its data, on the navigation's clock (0 = the
navigation began), so each figure is navigation start to data on screen, the API's answers
included. Five loads a page; prints each page's median and slowest to stderr and
`export CONSOLE_PAGES=name:median:slowest,…` and `export CONSOLE_SLOWEST_MS=…` to stdout.

Environment: CONSOLE_URL, CONSOLE_SECRET_KEY, CONSOLE_RUN (a run id), CONSOLE_SUBSCRIBER.
"""
import os
import statistics
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

URL = os.environ["CONSOLE_URL"]
RUN = os.environ["CONSOLE_RUN"]
SUBSCRIBER = os.environ["CONSOLE_SUBSCRIBER"]
PAGES = [
    ("runs", "#/runs"),
    ("runs-by-subscriber", "#/runs?subscriberId=" + SUBSCRIBER),
    ("runs-by-workflow", "#/runs?workflow=leg-day"),
    ("runs-failed", "#/runs?status=failed"),
    ("runs-waiting", "#/runs?status=waiting"),
    ("run-timeline", "#/run/" + RUN),
    ("subscriber", "#/subscriber/" + SUBSCRIBER),
    ("workflows", "#/workflows"),
    ("workflow", "#/workflow/leg-day"),
    ("health", "#/health"),
]
LOADS = 5


def main():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,1000"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    wait = WebDriverWait(driver, 30)
    try:
        driver.get(URL)
        wait.until(EC.visibility_of_element_located((By.ID, "secret-key"))).send_keys(os.environ["CONSOLE_SECRET_KEY"])
        driver.find_element(By.CSS_SELECTOR, "#sign-in-form button").click()
        wait.until(EC.visibility_of_element_located((By.ID, "runs")))
        figures = []
        for name, fragment in PAGES:
            times = []
            for _ in range(LOADS):
                driver.get("about:blank")
                driver.get(URL + fragment)
                deadline = time.time() + 30
                ready = None
                while ready is None and time.time() < deadline:
                    ready = driver.execute_script(
                        "const m = performance.getEntriesByName('view-ready'); return m.length ? m[0].startTime : null")
                    if ready is None:
                        time.sleep(0.01)
                if ready is None:
                    raise SystemExit("the %s page never showed its data" % name)
                errors = driver.find_elements(By.CSS_SELECTOR, "#view .error[role=alert]")
                if errors:
                    raise SystemExit("the %s page failed: %s" % (name, errors[0].text))
                times.append(ready)
            median, slowest = statistics.median(times), max(times)
            figures.append((name, median, slowest))
            print("console bench: %-20s median %6.0f ms, slowest %6.0f ms (%d loads)" % (name, median, slowest, LOADS), file=sys.stderr)
    finally:
        driver.quit()
    print("export CONSOLE_PAGES=" + ",".join("%s:%.0f:%.0f" % f for f in figures))
    print("export CONSOLE_SLOWEST_MS=%.0f" % max(f[2] for f in figures))


if __name__ == "__main__":
    main()
