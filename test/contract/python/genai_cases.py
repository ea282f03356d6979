"""Contract cases for the official `google-genai` Python SDK against the gateway (see sdk_case_runner.py).

Generating content: https://ai.google.dev/api/generate-content
Function calling: https://ai.google.dev/gemini-api/docs/function-calling
Structured output: https://ai.google.dev/gemini-api/docs/structured-output
Token counting: https://ai.google.dev/api/tokens
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional

from google import genai
from google.genai import types

from sdk_case_runner import REQUEST_TIMEOUT_SECONDS, COUNT_PADDING, WEATHER_PARAMETERS, WEATHER_REPORT_SCHEMA, CaseJob, main

WEATHER_TOOL = types.Tool(
    function_declarations=[types.FunctionDeclaration(name="get_weather", description="Current weather", parameters_json_schema=WEATHER_PARAMETERS)]
)
#: The structured-output schema in the SDK's OpenAPI-subset form (`response_schema`).
WEATHER_REPORT_OPENAPI_SCHEMA = types.Schema(
    type=types.Type.OBJECT,
    properties={"city": types.Schema(type=types.Type.STRING), "temperature_c": types.Schema(type=types.Type.NUMBER)},
    required=["city", "temperature_c"],
)


def client_for(job: CaseJob, key: Optional[str] = None) -> genai.Client:
    """An SDK client for the gateway (API-key mode, `v1beta`); the SDK does not retry by default.

    Callers keep the returned Client in a variable for the whole case: the SDK closes its HTTP
    client when the Client object is garbage-collected.
    """
    return genai.Client(
        api_key=key or job.key,
        http_options=types.HttpOptions(base_url=job.url, api_version="v1beta", timeout=int(REQUEST_TIMEOUT_SECONDS * 1000)),
    )


def enum_name(value: Any) -> Optional[str]:
    return None if value is None else getattr(value, "value", str(value))


def chunks_result(chunks: List[types.GenerateContentResponse]) -> Dict[str, Any]:
    """Folds one answer (one chunk) or a stream's chunks into text, thoughts, calls, finish and usage."""
    text = ""
    reasoning = ""
    tool_calls = []
    finish = None
    usage = None
    roles = set()
    for chunk in chunks:
        candidate = chunk.candidates[0] if chunk.candidates else None
        if candidate is not None and candidate.content is not None:
            roles.add(candidate.content.role)
            for part in candidate.content.parts or []:
                if part.thought:
                    reasoning += part.text or ""
                elif part.text is not None:
                    text += part.text
                if part.function_call is not None:
                    tool_calls.append({"id": part.function_call.id, "name": part.function_call.name, "arguments": part.function_call.args})
        if candidate is not None and candidate.finish_reason is not None:
            finish = enum_name(candidate.finish_reason)
        if chunk.usage_metadata is not None:
            usage = chunk.usage_metadata
    return {
        "text": text,
        "reasoning": reasoning,
        "toolCalls": tool_calls,
        "finish": finish,
        "roles": sorted(role or "" for role in roles),
        "chunks": len(chunks),
        "usage": None
        if usage is None
        else {
            "input": usage.prompt_token_count,
            "output": usage.candidates_token_count,
            "reasoning": usage.thoughts_token_count,
            "cacheRead": usage.cached_content_token_count,
            "total": usage.total_token_count,
        },
    }


def generate(job: CaseJob) -> Dict[str, Any]:
    client = client_for(job)
    return chunks_result([client.models.generate_content(model=job.model, contents=job.prompt())])


def generate_stream(job: CaseJob) -> Dict[str, Any]:
    client = client_for(job)
    return chunks_result(list(client.models.generate_content_stream(model=job.model, contents=job.prompt())))


def thinking(job: CaseJob) -> Dict[str, Any]:
    """Thought summaries (https://ai.google.dev/gemini-api/docs/thinking), streamed."""
    config = types.GenerateContentConfig(thinking_config=types.ThinkingConfig(include_thoughts=True, thinking_budget=1024))
    client = client_for(job)
    return chunks_result(list(client.models.generate_content_stream(model=job.model, contents=job.prompt(), config=config)))


def thinking_replay(job: CaseJob) -> Dict[str, Any]:
    """A thinking answer replayed as the model turn of the next request: the SDK holds
    `thoughtSignature` as bytes, so what it sends back is its own base64 encoding of them."""
    client = client_for(job)
    config = types.GenerateContentConfig(thinking_config=types.ThinkingConfig(include_thoughts=True, thinking_budget=1024))
    contents: List[types.Content] = [types.Content(role="user", parts=[types.Part(text=job.prompt())])]
    first = client.models.generate_content(model=job.model, contents=contents, config=config)
    contents += [first.candidates[0].content, types.Content(role="user", parts=[types.Part(text=job.followup_prompt())])]
    second = client.models.generate_content(model=job.followup_model, contents=contents, config=config)
    return {"first": chunks_result([first]), "answer": chunks_result([second])}


def function_call(job: CaseJob) -> Dict[str, Any]:
    """A `functionCall`, then its `functionResponse` sent back with the model turn replayed."""
    client = client_for(job)
    config = types.GenerateContentConfig(tools=[WEATHER_TOOL], automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True))
    contents: List[types.Content] = [types.Content(role="user", parts=[types.Part(text=job.prompt())])]
    first = client.models.generate_content(model=job.model, contents=contents, config=config)
    contents.append(first.candidates[0].content)
    responses = [
        types.Part(function_response=types.FunctionResponse(id=call.id, name=call.name, response={"result": job.tool_result()}))
        for call in first.function_calls or []
    ]
    contents.append(types.Content(role="user", parts=responses))
    second = client.models.generate_content(model=job.followup_model, contents=contents, config=config)
    return {"call": chunks_result([first]), "answer": chunks_result([second])}


def function_call_stream(job: CaseJob) -> Dict[str, Any]:
    config = types.GenerateContentConfig(tools=[WEATHER_TOOL], automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True))
    client = client_for(job)
    return chunks_result(list(client.models.generate_content_stream(model=job.model, contents=job.prompt(), config=config)))


def json_schema(job: CaseJob) -> Dict[str, Any]:
    """`response_json_schema`: a JSON Schema passed as is."""
    config = types.GenerateContentConfig(response_mime_type="application/json", response_json_schema=WEATHER_REPORT_SCHEMA)
    client = client_for(job)
    return chunks_result([client.models.generate_content(model=job.model, contents=job.prompt(), config=config)])


def response_schema(job: CaseJob) -> Dict[str, Any]:
    """`response_schema`: the OpenAPI-subset Schema object (upper-case types on the wire)."""
    config = types.GenerateContentConfig(response_mime_type="application/json", response_schema=WEATHER_REPORT_OPENAPI_SCHEMA)
    client = client_for(job)
    return chunks_result([client.models.generate_content(model=job.model, contents=job.prompt(), config=config)])


def count_tokens(job: CaseJob) -> Dict[str, Any]:
    client = client_for(job)
    models = client.models
    short = models.count_tokens(model=job.model, contents=job.prompt())
    padded = models.count_tokens(model=job.model, contents=job.prompt() + COUNT_PADDING)
    return {"short": short.total_tokens, "padded": padded.total_tokens}


def error_bad_key(job: CaseJob) -> Dict[str, Any]:
    client = client_for(job, key="AIza-not-a-tollgate-key")
    client.models.generate_content(model=job.model, contents=job.prompt())
    return {"unexpected": "no error raised"}


def error_unknown_model(job: CaseJob) -> Dict[str, Any]:
    client = client_for(job)
    client.models.generate_content(model=f"{job.model}-no-such-model", contents=job.prompt())
    return {"unexpected": "no error raised"}


def error_upstream(job: CaseJob) -> Dict[str, Any]:
    client = client_for(job)
    client.models.generate_content(model=job.model, contents=job.prompt())
    return {"unexpected": "no error raised"}


CASES = {
    "generate": generate,
    "generate-stream": generate_stream,
    "thinking": thinking,
    "thinking-replay": thinking_replay,
    "function-call": function_call,
    "function-call-stream": function_call_stream,
    "json-schema": json_schema,
    "response-schema": response_schema,
    "count-tokens": count_tokens,
    "error-bad-key": error_bad_key,
    "error-unknown-model": error_unknown_model,
    "error-upstream": error_upstream,
}

if __name__ == "__main__":
    main(CASES)
