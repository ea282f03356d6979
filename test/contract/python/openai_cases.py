"""Contract cases for the official `openai` Python SDK against the gateway (see sdk_case_runner.py).

Chat Completions: https://platform.openai.com/docs/api-reference/chat
Responses: https://platform.openai.com/docs/api-reference/responses
Stream helpers: https://github.com/openai/openai-python/blob/main/helpers.md
"""
from __future__ import annotations

import json
from typing import Any, Dict, List

import openai

from sdk_case_runner import REQUEST_TIMEOUT_SECONDS, COUNT_PADDING, WEATHER_PARAMETERS, WEATHER_REPORT_SCHEMA, CaseJob, main

CHAT_TOOLS: List[Dict[str, Any]] = [
    {"type": "function", "function": {"name": "get_weather", "description": "Current weather", "parameters": WEATHER_PARAMETERS}}
]
#: `chat.completions.stream()` auto-parses tool arguments and accepts only strict function tools.
STRICT_CHAT_TOOLS: List[Dict[str, Any]] = [
    {
        "type": "function",
        "function": {"name": "get_weather", "description": "Current weather", "parameters": {**WEATHER_PARAMETERS, "additionalProperties": False}, "strict": True},
    }
]
RESPONSES_TOOLS: List[Dict[str, Any]] = [
    {"type": "function", "name": "get_weather", "description": "Current weather", "parameters": WEATHER_PARAMETERS, "strict": False}
]


def client_for(job: CaseJob, key: str | None = None) -> openai.OpenAI:
    """An SDK client for the gateway; no retries, so a failure is seen at once."""
    return openai.OpenAI(api_key=key or job.key, base_url=f"{job.url}/v1", max_retries=0, timeout=REQUEST_TIMEOUT_SECONDS)


def chat_usage(usage: Any) -> Dict[str, Any] | None:
    if usage is None:
        return None
    prompt_details = getattr(usage, "prompt_tokens_details", None)
    completion_details = getattr(usage, "completion_tokens_details", None)
    return {
        "input": usage.prompt_tokens,
        "output": usage.completion_tokens,
        "total": usage.total_tokens,
        "cacheRead": getattr(prompt_details, "cached_tokens", None),
        "reasoning": getattr(completion_details, "reasoning_tokens", None),
    }


def chat_result(completion: Any, usage: Any) -> Dict[str, Any]:
    choice = completion.choices[0]
    tool_calls = [
        {"id": call.id, "name": call.function.name, "arguments": json.loads(call.function.arguments)}
        for call in (choice.message.tool_calls or [])
    ]
    return {
        "id": completion.id,
        "object": completion.object,
        "role": choice.message.role,
        "text": choice.message.content or "",
        "toolCalls": tool_calls,
        "finish": choice.finish_reason,
        "usage": chat_usage(usage),
    }


def chat_plain(job: CaseJob) -> Dict[str, Any]:
    completion = client_for(job).chat.completions.create(model=job.model, messages=[{"role": "user", "content": job.prompt()}])
    return chat_result(completion, completion.usage)


def chat_stream(job: CaseJob) -> Dict[str, Any]:
    """`chat.completions.stream()`: the SDK's accumulating helper; usage comes on the last chunk."""
    usage = None
    deltas = 0
    with client_for(job).chat.completions.stream(
        model=job.model, messages=[{"role": "user", "content": job.prompt()}], stream_options={"include_usage": True}
    ) as stream:
        for event in stream:
            if event.type == "content.delta":
                deltas += 1
            if event.type == "chunk" and event.chunk.usage is not None:
                usage = event.chunk.usage
        completion = stream.get_final_completion()
    return {**chat_result(completion, usage), "contentDeltas": deltas}


def chat_stream_without_usage(job: CaseJob) -> Dict[str, Any]:
    """A stream without `stream_options.include_usage`: no chunk may carry usage
    (https://platform.openai.com/docs/api-reference/chat/create#chat-create-stream_options)."""
    usage_chunks = 0
    with client_for(job).chat.completions.stream(model=job.model, messages=[{"role": "user", "content": job.prompt()}]) as stream:
        for event in stream:
            if event.type == "chunk" and event.chunk.usage is not None:
                usage_chunks += 1
        completion = stream.get_final_completion()
    return {**chat_result(completion, completion.usage), "usageChunks": usage_chunks}


def chat_stream_tools(job: CaseJob) -> Dict[str, Any]:
    """A tool call streamed as argument fragments, assembled by `chat.completions.stream()`."""
    usage = None
    with client_for(job).chat.completions.stream(
        model=job.model, messages=[{"role": "user", "content": job.prompt()}], tools=STRICT_CHAT_TOOLS, stream_options={"include_usage": True}
    ) as stream:
        for event in stream:
            if event.type == "chunk" and event.chunk.usage is not None:
                usage = event.chunk.usage
        completion = stream.get_final_completion()
    return chat_result(completion, usage)


def chat_tools(job: CaseJob) -> Dict[str, Any]:
    """A tool call, then its result sent back in a second request (the round trip)."""
    client = client_for(job)
    messages: List[Dict[str, Any]] = [{"role": "user", "content": job.prompt()}]
    first = client.chat.completions.create(model=job.model, messages=messages, tools=CHAT_TOOLS)
    calls = first.choices[0].message.tool_calls or []
    messages.append(first.choices[0].message.model_dump(exclude_none=True))
    for call in calls:
        messages.append({"role": "tool", "tool_call_id": call.id, "content": job.tool_result()})
    second = client.chat.completions.create(model=job.followup_model, messages=messages, tools=CHAT_TOOLS)
    return {"call": chat_result(first, first.usage), "answer": chat_result(second, second.usage)}


def chat_structured(job: CaseJob) -> Dict[str, Any]:
    """`response_format: json_schema` (https://platform.openai.com/docs/guides/structured-outputs)."""
    completion = client_for(job).chat.completions.create(
        model=job.model,
        messages=[{"role": "user", "content": job.prompt()}],
        response_format={"type": "json_schema", "json_schema": {"name": "weather_report", "schema": WEATHER_REPORT_SCHEMA, "strict": True}},
    )
    return chat_result(completion, completion.usage)


def responses_usage(usage: Any) -> Dict[str, Any] | None:
    if usage is None:
        return None
    return {
        "input": usage.input_tokens,
        "output": usage.output_tokens,
        "total": usage.total_tokens,
        "cacheRead": getattr(usage.input_tokens_details, "cached_tokens", None),
        "reasoning": getattr(usage.output_tokens_details, "reasoning_tokens", None),
    }


def responses_result(response: Any) -> Dict[str, Any]:
    reasoning = ""
    tool_calls = []
    for item in response.output:
        if item.type == "reasoning":
            reasoning += "".join(part.text for part in item.summary) + "".join(part.text for part in (item.content or []))
        if item.type == "function_call":
            tool_calls.append({"id": item.call_id, "name": item.name, "arguments": json.loads(item.arguments)})
    return {
        "id": response.id,
        "object": response.object,
        "status": response.status,
        "text": response.output_text,
        "reasoning": reasoning,
        "toolCalls": tool_calls,
        "outputTypes": [item.type for item in response.output],
        "usage": responses_usage(response.usage),
    }


def responses_create(job: CaseJob) -> Dict[str, Any]:
    return responses_result(client_for(job).responses.create(model=job.model, input=job.prompt()))


def responses_stream(job: CaseJob) -> Dict[str, Any]:
    """`responses.stream()`: the helper validates the event sequence and needs `response.completed`."""
    event_types: List[str] = []
    text = ""
    with client_for(job).responses.stream(model=job.model, input=job.prompt()) as stream:
        for event in stream:
            event_types.append(event.type)
            if event.type == "response.output_text.delta":
                text += event.delta
        response = stream.get_final_response()
    return {**responses_result(response), "deltaText": text, "firstEvent": event_types[0], "lastEvent": event_types[-1]}


def responses_stream_tools(job: CaseJob) -> Dict[str, Any]:
    """A function call streamed as `response.function_call_arguments.delta` events."""
    with client_for(job).responses.stream(model=job.model, input=job.prompt(), tools=RESPONSES_TOOLS) as stream:
        arguments_done = [event.arguments for event in stream if event.type == "response.function_call_arguments.done"]
        response = stream.get_final_response()
    return {**responses_result(response), "argumentsDone": [json.loads(arguments) for arguments in arguments_done]}


def responses_reasoning(job: CaseJob) -> Dict[str, Any]:
    return responses_result(
        client_for(job).responses.create(model=job.model, input=job.prompt(), reasoning={"effort": "low", "summary": "auto"})
    )


def responses_reasoning_replay(job: CaseJob) -> Dict[str, Any]:
    """The output items of a reasoning answer (reasoning item included) replayed as input of the next request."""
    client = client_for(job)
    reasoning = {"effort": "low", "summary": "auto"}
    conversation: List[Any] = [{"role": "user", "content": job.prompt()}]
    first = client.responses.create(model=job.model, input=conversation, reasoning=reasoning)
    conversation += [item.model_dump(exclude_none=True) for item in first.output]
    conversation.append({"role": "user", "content": job.followup_prompt()})
    second = client.responses.create(model=job.followup_model, input=conversation, reasoning=reasoning)
    return {"first": responses_result(first), "answer": responses_result(second)}


def responses_tools(job: CaseJob) -> Dict[str, Any]:
    """A function call, then `function_call_output` sent back with the call in `input`."""
    client = client_for(job)
    conversation: List[Any] = [{"role": "user", "content": job.prompt()}]
    first = client.responses.create(model=job.model, input=conversation, tools=RESPONSES_TOOLS)
    for item in first.output:
        if item.type == "function_call":
            conversation.append({"type": "function_call", "call_id": item.call_id, "name": item.name, "arguments": item.arguments})
            conversation.append({"type": "function_call_output", "call_id": item.call_id, "output": job.tool_result()})
    second = client.responses.create(model=job.followup_model, input=conversation, tools=RESPONSES_TOOLS)
    return {"call": responses_result(first), "answer": responses_result(second)}


def responses_structured(job: CaseJob) -> Dict[str, Any]:
    return responses_result(
        client_for(job).responses.create(
            model=job.model,
            input=job.prompt(),
            text={"format": {"type": "json_schema", "name": "weather_report", "schema": WEATHER_REPORT_SCHEMA, "strict": True}},
        )
    )


def responses_input_tokens(job: CaseJob) -> Dict[str, Any]:
    """`POST /v1/responses/input_tokens` (https://platform.openai.com/docs/api-reference/responses/input-tokens)."""
    counter = client_for(job).responses.input_tokens
    short = counter.count(model=job.model, input=job.prompt())
    padded = counter.count(model=job.model, input=job.prompt() + COUNT_PADDING)
    return {"object": short.object, "short": short.input_tokens, "padded": padded.input_tokens}


def chat_logprobs(job: CaseJob) -> Dict[str, Any]:
    """`logprobs: true`, which only a Chat Completions upstream can answer."""
    completion = client_for(job).chat.completions.create(model=job.model, messages=[{"role": "user", "content": job.prompt()}], logprobs=True)
    return chat_result(completion, completion.usage)


def responses_builtin_tool(job: CaseJob) -> Dict[str, Any]:
    """A built-in tool (`file_search`, https://platform.openai.com/docs/guides/tools-file-search), which only OpenAI runs."""
    return responses_result(client_for(job).responses.create(model=job.model, input=job.prompt(), tools=[{"type": "file_search", "vector_store_ids": ["vs_contract"]}]))


def chat_error_bad_key(job: CaseJob) -> Dict[str, Any]:
    client_for(job, key="sk-not-a-tollgate-key").chat.completions.create(model=job.model, messages=[{"role": "user", "content": job.prompt()}])
    return {"unexpected": "no error raised"}


def chat_error_unknown_model(job: CaseJob) -> Dict[str, Any]:
    client_for(job).chat.completions.create(model=f"{job.model}-no-such-model", messages=[{"role": "user", "content": job.prompt()}])
    return {"unexpected": "no error raised"}


def chat_error_upstream(job: CaseJob) -> Dict[str, Any]:
    client_for(job).chat.completions.create(model=job.model, messages=[{"role": "user", "content": job.prompt()}])
    return {"unexpected": "no error raised"}


def responses_error_bad_key(job: CaseJob) -> Dict[str, Any]:
    client_for(job, key="sk-not-a-tollgate-key").responses.create(model=job.model, input=job.prompt())
    return {"unexpected": "no error raised"}


def responses_error_unknown_model(job: CaseJob) -> Dict[str, Any]:
    client_for(job).responses.create(model=f"{job.model}-no-such-model", input=job.prompt())
    return {"unexpected": "no error raised"}


def responses_error_upstream(job: CaseJob) -> Dict[str, Any]:
    client_for(job).responses.create(model=job.model, input=job.prompt())
    return {"unexpected": "no error raised"}


CASES = {
    "chat": chat_plain,
    "chat-stream": chat_stream,
    "chat-stream-without-usage": chat_stream_without_usage,
    "chat-stream-tools": chat_stream_tools,
    "chat-tools": chat_tools,
    "chat-structured": chat_structured,
    "chat-logprobs": chat_logprobs,
    "chat-error-bad-key": chat_error_bad_key,
    "chat-error-unknown-model": chat_error_unknown_model,
    "chat-error-upstream": chat_error_upstream,
    "responses": responses_create,
    "responses-stream": responses_stream,
    "responses-stream-tools": responses_stream_tools,
    "responses-reasoning": responses_reasoning,
    "responses-reasoning-replay": responses_reasoning_replay,
    "responses-tools": responses_tools,
    "responses-structured": responses_structured,
    "responses-input-tokens": responses_input_tokens,
    "responses-builtin-tool": responses_builtin_tool,
    "responses-error-bad-key": responses_error_bad_key,
    "responses-error-unknown-model": responses_error_unknown_model,
    "responses-error-upstream": responses_error_upstream,
}

if __name__ == "__main__":
    main(CASES)
