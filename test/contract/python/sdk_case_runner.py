"""Shared runner for the Python SDK contract cases (openai_cases.py, anthropic_cases.py, genai_cases.py).

Each case script drives the gateway with one official SDK and prints what the SDK parsed as JSON.

One case:
    python openai_cases.py GATEWAY_URL KEY MODEL CASE [FOLLOWUP_MODEL]
    (or the environment: TOLLGATE_GATEWAY_URL, TOLLGATE_KEY, TOLLGATE_MODEL, TOLLGATE_CASE,
    TOLLGATE_FOLLOWUP_MODEL, TOLLGATE_TAG) -> one JSON object on stdout.

Many cases in one process (what test/contract/python-sdk-matrix.test.ts does, to pay Python's
start-up once per SDK):
    python openai_cases.py --batch < jobs.jsonl
    where each input line is {"id", "case", "url", "key", "model", "followupModel"?, "tag"?}; the
    cases run on a thread pool and each prints one JSON line {"id", "ok", "result" | "error"} as it
    finishes.

`followupModel` is the model of the second request in two-turn cases (a tool result sent back);
`tag` is a marker the cases put into the prompt and the tool result so the test can find the
requests the gateway sent upstream for this case.
"""
from __future__ import annotations

import json
import os
import sys
import threading
import traceback
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Callable, Dict

#: Seconds an SDK waits for the gateway before giving up (the SDKs' defaults are minutes).
REQUEST_TIMEOUT_SECONDS = 20.0

#: Parameters of the one function tool every tool case declares.
WEATHER_PARAMETERS: Dict[str, Any] = {
    "type": "object",
    "properties": {"city": {"type": "string"}},
    "required": ["city"],
}

#: The JSON schema every structured-output case asks for.
WEATHER_REPORT_SCHEMA: Dict[str, Any] = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "temperature_c": {"type": "number"}},
    "required": ["city", "temperature_c"],
    "additionalProperties": False,
}

#: Text appended to the prompt by the token-count cases to check that the count follows the input.
COUNT_PADDING = " Please answer in detail, mentioning wind, rain and temperature for every hour of the day."


@dataclass(frozen=True)
class CaseJob:
    """One case to run: where the gateway is, which key and model to use, and the case's tag."""

    case: str
    url: str
    key: str
    model: str
    followup_model: str
    tag: str

    def prompt(self) -> str:
        """The user prompt, carrying the tag so upstream requests can be attributed to this case."""
        return f"What is the weather in Oslo? (ref {self.tag})"

    def followup_prompt(self) -> str:
        """The user turn after a replayed answer, carrying the tag."""
        return f"Thanks! And tomorrow? (ref {self.tag})"

    def tool_result(self) -> str:
        """The tool result sent back in round-trip cases, also carrying the tag."""
        return f"12 degrees and cloudy (ref {self.tag})"


Case = Callable[[CaseJob], Dict[str, Any]]


def describe_error(error: BaseException) -> Dict[str, Any]:
    """What the SDK raised: its class, the classes it inherits from, and the status it parsed."""
    status = getattr(error, "status_code", None)
    if status is None:
        status = getattr(error, "code", None)  # google.genai.errors.APIError keeps the HTTP status in `code`
    return {
        "class": type(error).__name__,
        "module": type(error).__module__,
        "bases": [klass.__name__ for klass in type(error).__mro__],
        "status": status if isinstance(status, int) else None,
        "statusText": getattr(error, "status", None) if isinstance(getattr(error, "status", None), str) else None,
        "type": getattr(error, "type", None) if isinstance(getattr(error, "type", None), str) else None,
        "message": str(error)[:500],
        "traceback": traceback.format_exc(limit=6)[-1500:],
    }


def run_one(cases: Dict[str, Case], job: CaseJob) -> Dict[str, Any]:
    """Runs one case; a raised exception becomes `{"ok": false, "error": …}` rather than a crash."""
    case = cases.get(job.case)
    if case is None:
        return {"ok": False, "error": {"class": "UnknownCase", "message": f"no case named {job.case!r}; known: {sorted(cases)}"}}
    try:
        return {"ok": True, "result": case(job)}
    except Exception as error:  # every SDK error is a result the test asserts on
        return {"ok": False, "error": describe_error(error)}


def _job_from_json(line: str) -> tuple[str, CaseJob]:
    raw = json.loads(line)
    job = CaseJob(
        case=raw["case"],
        url=raw["url"],
        key=raw["key"],
        model=raw["model"],
        followup_model=raw.get("followupModel") or raw["model"],
        tag=raw.get("tag") or raw["case"],
    )
    return str(raw["id"]), job


def _run_batch(cases: Dict[str, Case]) -> None:
    lock = threading.Lock()

    def run_and_print(job_id: str, job: CaseJob) -> None:
        outcome = run_one(cases, job)
        with lock:
            sys.stdout.write(json.dumps({"id": job_id, **outcome}) + "\n")
            sys.stdout.flush()

    workers = int(os.environ.get("TOLLGATE_SDK_CONCURRENCY", "8"))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for line in sys.stdin:
            if line.strip():
                job_id, job = _job_from_json(line)
                pool.submit(run_and_print, job_id, job)


def _job_from_argv_or_env(argv: list[str]) -> CaseJob:
    env = os.environ
    url, key, model, case, followup = (argv + [""] * 5)[:5]
    model = model or env.get("TOLLGATE_MODEL", "")
    job = CaseJob(
        case=case or env.get("TOLLGATE_CASE", ""),
        url=url or env.get("TOLLGATE_GATEWAY_URL", ""),
        key=key or env.get("TOLLGATE_KEY", ""),
        model=model,
        followup_model=followup or env.get("TOLLGATE_FOLLOWUP_MODEL") or model,
        tag=env.get("TOLLGATE_TAG", "single"),
    )
    if not (job.case and job.url and job.key and job.model):
        sys.exit("usage: CASES.py GATEWAY_URL KEY MODEL CASE [FOLLOWUP_MODEL]  (or TOLLGATE_* env, or --batch)")
    return job


def main(cases: Dict[str, Case]) -> None:
    """Entry point of a case script: `--batch` (JSON lines in and out), `--list`, or one case."""
    argv = sys.argv[1:]
    if argv[:1] == ["--batch"]:
        _run_batch(cases)
    elif argv[:1] == ["--list"]:
        print(json.dumps(sorted(cases)))
    else:
        print(json.dumps(run_one(cases, _job_from_argv_or_env(argv)), indent=2))
