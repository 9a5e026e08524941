"""The BuzzKit console in headless Chromium (Debian's chromium and chromium-driver, Selenium
from PyPI), against a real API and pipeline that ConsoleEndToEndTests started and seeded.

Environment: CONSOLE_URL, CONSOLE_SECRET_KEY, CONSOLE_ACKNOWLEDGED_SUBSCRIBER (a phone that held
its plan), CONSOLE_FALLBACK_SUBSCRIBER (a force-quit phone: the fallback), CONSOLE_HOSTILE_RUN (a
run whose trigger properties hold markup), CONSOLE_OUTPUT (where screenshots go).
Exits 0 when every check passed; prints what failed otherwise.
"""
import json
import os
import sys

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

URL = os.environ["CONSOLE_URL"]
KEY = os.environ["CONSOLE_SECRET_KEY"]
ACKNOWLEDGED = os.environ["CONSOLE_ACKNOWLEDGED_SUBSCRIBER"]
FALLBACK = os.environ["CONSOLE_FALLBACK_SUBSCRIBER"]
HOSTILE_RUN = os.environ["CONSOLE_HOSTILE_RUN"]
OUTPUT = os.environ["CONSOLE_OUTPUT"]


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,1000"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


class Console:
    def __init__(self, driver):
        self.driver = driver
        self.wait = WebDriverWait(driver, 15)

    def shot(self, name):
        self.driver.save_screenshot(os.path.join(OUTPUT, name + ".png"))

    def text(self, css):
        return self.wait.until(EC.visibility_of_element_located((By.CSS_SELECTOR, css))).text

    def sign_in(self, key):
        self.driver.get(URL)
        field = self.wait.until(EC.visibility_of_element_located((By.ID, "secret-key")))
        field.clear()
        field.send_keys(key)
        self.driver.find_element(By.CSS_SELECTOR, "#sign-in-form button").click()

    def open_run_of(self, subscriber):
        self.driver.get(URL + "#/runs?subscriberId=" + subscriber)
        # The subscriber's fleet run, not the dry run made for the markup check.
        self.wait.until(EC.element_to_be_clickable((By.CSS_SELECTOR, "#runs tbody tr[data-run] a.mono")))
        rows = self.driver.find_elements(By.CSS_SELECTOR, "#runs tbody tr[data-run]")
        row = next(r for r in rows if r.get_attribute("data-run") != HOSTILE_RUN)
        row.find_element(By.CSS_SELECTOR, "a.mono").click()
        self.wait.until(EC.visibility_of_element_located((By.ID, "timeline")))
        return self.text("#verdict"), self.text("#timeline")

    def navigation_ms(self):
        timing = self.driver.execute_script("return JSON.stringify(performance.getEntriesByType('navigation')[0])")
        entry = json.loads(timing)
        return entry["duration"]


def main():
    os.makedirs(OUTPUT, exist_ok=True)
    failures = []

    def check(condition, what):
        print(("ok   " if condition else "FAIL ") + what)
        if not condition:
            failures.append(what)

    driver = browser()
    console = Console(driver)
    try:
        # A wrong key is refused, and nothing but the sign-in shows.
        console.sign_in("sk_00000000_wrongwrongwrongwrong")
        refused = console.text("#sign-in-error")
        console.shot("01-wrong-key")
        check("refused" in refused, "a wrong key is refused: " + refused)
        check(not driver.find_element(By.ID, "nav").is_displayed(), "no navigation without a key")

        console.sign_in(KEY)
        console.wait.until(EC.visibility_of_element_located((By.ID, "runs")))
        console.shot("02-runs")
        check(KEY not in driver.current_url, "the key is not in the URL")
        resources = driver.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
        check(all(KEY not in name for name in resources), "the key is in no request URL")
        print("console page load: %.0f ms (navigation timing)" % console.navigation_ms())

        # Find a subscriber's run with the search form, as support would.
        search = console.wait.until(EC.visibility_of_element_located((By.ID, "filter-subscriber")))
        search.send_keys(ACKNOWLEDGED)
        driver.find_element(By.ID, "run-search").click()
        console.wait.until(EC.url_contains("subscriberId="))
        rows = console.wait.until(EC.presence_of_all_elements_located((By.CSS_SELECTOR, "#runs tbody tr[data-run]")))
        check(len(rows) >= 1, "the search finds the subscriber's runs (%d)" % len(rows))

        verdict, timeline = console.open_run_of(ACKNOWLEDGED)
        console.shot("03-timeline-acknowledged")
        check("local notification" in verdict and "no fallback" in verdict, "acknowledged run: shown once by the phone: " + verdict)
        check("Plan sent" in timeline, "its timeline shows the plan sent to the device")
        check("Acknowledged by device" in timeline, "its timeline shows the device's acknowledgment")
        check("Fallback push" not in timeline, "its timeline shows no fallback push")

        verdict, timeline = console.open_run_of(FALLBACK)
        console.shot("04-timeline-fallback")
        check("fallback push" in verdict, "force-quit run: shown once by the fallback: " + verdict)
        check("Fallback push" in timeline, "its timeline shows the fallback push")
        check("no device confirmed the schedule" in timeline or "no device" in verdict, "with its reason: " + verdict)

        # Markup from an app's event is text on the page, never HTML.
        driver.get(URL + "#/run/" + HOSTILE_RUN)
        timeline = console.text("#timeline")
        console.shot("05-markup-as-text")
        check("<script>window.pwned = 1</script>" in timeline, "a <script> property renders as text")
        check(driver.execute_script("return window.pwned === undefined"), "the markup did not run")
        check(len(driver.find_elements(By.CSS_SELECTOR, "#view script, #view img")) == 0, "no element was made from it")

        # The subscriber page: devices and recent runs.
        driver.get(URL + "#/subscriber/" + ACKNOWLEDGED)
        devices = console.text("#devices")
        console.shot("06-subscriber")
        check("active" in devices, "the subscriber's device is listed as active")
        check(len(driver.find_elements(By.CSS_SELECTOR, "#subscriber-runs tr")) >= 2, "with its recent runs")

        # Workflows: the list, then one with its versions and definition.
        driver.get(URL + "#/workflows")
        console.wait.until(EC.element_to_be_clickable((By.CSS_SELECTOR, "#workflows tbody a"))).click()
        definition = console.text("#definition")
        console.shot("07-workflow")
        check('"trigger"' in definition, "a workflow's definition is shown")
        check(console.text("#workflow-version") != "", "with its current version")

        # Health: the dead letter is counted, listed and replayed.
        driver.get(URL + "#/health")
        console.wait.until(EC.visibility_of_element_located((By.CSS_SELECTOR, "#queues tr[data-queue='trigger']")))
        console.wait.until(EC.visibility_of_element_located((By.ID, "chart-windows")))
        console.shot("08-health")
        console.wait.until(EC.element_to_be_clickable((By.ID, "open-letters-trigger"))).click()
        letters = console.text("#letters-trigger table")
        check("console-dead-letter" in letters, "the dead letter is listed with its message id")
        console.wait.until(EC.element_to_be_clickable((By.ID, "replay-trigger"))).click()
        replayed = console.text("#replayed-trigger")
        console.shot("09-replayed")
        check(replayed.startswith("1 dead letter"), "the dead letter is replayed from the health page: " + replayed)

        # Erasure asks for the subscriber's id typed again; a wrong one erases nothing.
        driver.get(URL + "#/subscriber/" + FALLBACK)
        console.wait.until(EC.element_to_be_clickable((By.ID, "erase-start"))).click()
        typed = console.wait.until(EC.visibility_of_element_located((By.ID, "confirm-input")))
        typed.send_keys(FALLBACK + "x")
        driver.find_element(By.ID, "confirm-go").click()
        check(len(driver.find_elements(By.ID, "erased")) == 0, "a mistyped confirmation erases nothing")
        typed.clear()
        typed.send_keys(FALLBACK)
        driver.find_element(By.ID, "confirm-go").click()
        check(FALLBACK in console.text("#erased"), "the subscriber is erased after the confirmation")
        driver.get(URL + "#/runs")
        console.wait.until(EC.visibility_of_element_located((By.ID, "runs")))
        driver.get(URL + "#/subscriber/" + FALLBACK)
        check("not found" in console.text("#view .error").lower(), "and is gone")

        # API answers the page showed on purpose (the wrong key's 401, the erased subscriber's
        # 404) are network entries; a script error or a CSP refusal is not.
        errors = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE" and entry.get("source") != "network"]
        check(errors == [], "no script errors or CSP violations in the browser: %s" % errors)
    finally:
        driver.quit()
    print("screenshots in " + OUTPUT)
    if failures:
        print("%d check(s) failed" % len(failures))
        sys.exit(1)


if __name__ == "__main__":
    main()
