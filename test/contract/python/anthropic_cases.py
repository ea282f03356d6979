"""Contract cases for the official `anthropic` Python SDK against the gateway (see sdk_case_runner.py).

Messages: https://docs.anthropic.com/en/api/messages
Streaming helpers: https://docs.anthropic.com/en/api/messages-streaming
Token counting: https://docs.anthropic.com/en/api/messages-count-tokens
"""
from __future__ import annotations

from typing import Any, Dict, List

import anthropic

from sdk_case_runner import REQUEST_TIMEOUT_SECONDS, COUNT_PADDING, WEATHER_PARAMETERS, WEATHER_REPORT_SCHEMA, CaseJob, main

TOOLS: List[Dict[str, Any]] = [{"name": "get_weather", "description": "Current weather", "input_schema": WEATHER_PARAMETERS}]
MAX_TOKENS = 1024


def client_for(job: CaseJob, key: str | None = None) -> anthropic.Anthropic:
    """An SDK client for the gateway (`base_url` without `/v1`); no retries."""
    return anthropic.Anthropic(api_key=key or job.key, base_url=job.url, max_retries=0, timeout=REQUEST_TIMEOUT_SECONDS)


def message_result(message: Any) -> Dict[str, Any]:
    text = ""
    reasoning = ""
    signatures = 0
    tool_calls = []
    for block in message.content:
        if block.type == "text":
            text += block.text
        elif block.type == "thinking":
            reasoning += block.thinking
            signatures += 1 if block.signature else 0
        elif block.type == "tool_use":
            tool_calls.append({"id": block.id, "name": block.name, "arguments": block.input})
    usage = message.usage
    return {
        "id": message.id,
        "type": message.type,
        "role": message.role,
        "text": text,
        "reasoning": reasoning,
        "signedThinkingBlocks": signatures,
        "toolCalls": tool_calls,
        "blockTypes": [block.type for block in message.content],
        "finish": message.stop_reason,
        "usage": {
            "input": usage.input_tokens,
            "output": usage.output_tokens,
            "cacheRead": usage.cache_read_input_tokens,
            "cacheWrite": usage.cache_creation_input_tokens,
        },
    }


def assistant_turn(message: Any) -> Dict[str, Any]:
    """The answer replayed as the assistant turn of the next request."""
    content: List[Dict[str, Any]] = []
    for block in message.content:
        if block.type == "text":
            content.append({"type": "text", "text": block.text})
        elif block.type == "tool_use":
            content.append({"type": "tool_use", "id": block.id, "name": block.name, "input": block.input})
        elif block.type == "thinking":
            content.append({"type": "thinking", "thinking": block.thinking, "signature": block.signature})
    return {"role": "assistant", "content": content}


def messages_plain(job: CaseJob) -> Dict[str, Any]:
    message = client_for(job).messages.create(model=job.model, max_tokens=MAX_TOKENS, messages=[{"role": "user", "content": job.prompt()}])
    return message_result(message)


def messages_stream(job: CaseJob) -> Dict[str, Any]:
    """`messages.stream()`: text from `text_stream`, the message from `get_final_message()`."""
    with client_for(job).messages.stream(model=job.model, max_tokens=MAX_TOKENS, messages=[{"role": "user", "content": job.prompt()}]) as stream:
        streamed_text = "".join(stream.text_stream)
        message = stream.get_final_message()
    return {**message_result(message), "streamedText": streamed_text}


def messages_stream_tools(job: CaseJob) -> Dict[str, Any]:
    """A tool call streamed as `input_json_delta` fragments, assembled by the helper."""
    with client_for(job).messages.stream(
        model=job.model, max_tokens=MAX_TOKENS, tools=TOOLS, messages=[{"role": "user", "content": job.prompt()}]
    ) as stream:
        message = stream.get_final_message()
    return message_result(message)


def messages_tools(job: CaseJob) -> Dict[str, Any]:
    """`tool_use`, then a `tool_result` for it sent back in a second request."""
    client = client_for(job)
    messages: List[Dict[str, Any]] = [{"role": "user", "content": job.prompt()}]
    first = client.messages.create(model=job.model, max_tokens=MAX_TOKENS, tools=TOOLS, messages=messages)
    messages.append(assistant_turn(first))
    results = [{"type": "tool_result", "tool_use_id": block.id, "content": job.tool_result()} for block in first.content if block.type == "tool_use"]
    messages.append({"role": "user", "content": results})
    second = client.messages.create(model=job.followup_model, max_tokens=MAX_TOKENS, tools=TOOLS, messages=messages)
    return {"call": message_result(first), "answer": message_result(second)}


def messages_thinking(job: CaseJob) -> Dict[str, Any]:
    """Extended thinking (https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking), streamed."""
    with client_for(job).messages.stream(
        model=job.model,
        max_tokens=2048,
        thinking={"type": "enabled", "budget_tokens": 1024},
        messages=[{"role": "user", "content": job.prompt()}],
    ) as stream:
        message = stream.get_final_message()
    return message_result(message)


def messages_thinking_replay(job: CaseJob) -> Dict[str, Any]:
    """A thinking answer replayed, signature and all, as the assistant turn of the next request."""
    client = client_for(job)
    thinking = {"type": "enabled", "budget_tokens": 1024}
    messages: List[Dict[str, Any]] = [{"role": "user", "content": job.prompt()}]
    first = client.messages.create(model=job.model, max_tokens=2048, thinking=thinking, messages=messages)
    messages += [assistant_turn(first), {"role": "user", "content": job.followup_prompt()}]
    second = client.messages.create(model=job.followup_model, max_tokens=2048, thinking=thinking, messages=messages)
    return {"first": message_result(first), "answer": message_result(second)}


def messages_structured(job: CaseJob) -> Dict[str, Any]:
    """`output_config.format` (https://docs.anthropic.com/en/docs/build-with-claude/structured-outputs)."""
    message = client_for(job).messages.create(
        model=job.model,
        max_tokens=MAX_TOKENS,
        messages=[{"role": "user", "content": job.prompt()}],
        output_config={"format": {"type": "json_schema", "schema": WEATHER_REPORT_SCHEMA}},
    )
    return message_result(message)


def count_tokens(job: CaseJob) -> Dict[str, Any]:
    messages = client_for(job).messages
    short = messages.count_tokens(model=job.model, messages=[{"role": "user", "content": job.prompt()}])
    padded = messages.count_tokens(model=job.model, messages=[{"role": "user", "content": job.prompt() + COUNT_PADDING}])
    return {"short": short.input_tokens, "padded": padded.input_tokens}


def error_bad_key(job: CaseJob) -> Dict[str, Any]:
    client_for(job, key="sk-ant-not-a-tollgate-key").messages.create(model=job.model, max_tokens=16, messages=[{"role": "user", "content": job.prompt()}])
    return {"unexpected": "no error raised"}


def error_unknown_model(job: CaseJob) -> Dict[str, Any]:
    client_for(job).messages.create(model=f"{job.model}-no-such-model", max_tokens=16, messages=[{"role": "user", "content": job.prompt()}])
    return {"unexpected": "no error raised"}


def error_upstream(job: CaseJob) -> Dict[str, Any]:
    client_for(job).messages.create(model=job.model, max_tokens=16, messages=[{"role": "user", "content": job.prompt()}])
    return {"unexpected": "no error raised"}


CASES = {
    "messages": messages_plain,
    "messages-stream": messages_stream,
    "messages-stream-tools": messages_stream_tools,
    "messages-tools": messages_tools,
    "messages-thinking": messages_thinking,
    "messages-thinking-replay": messages_thinking_replay,
    "messages-structured": messages_structured,
    "count-tokens": count_tokens,
    "error-bad-key": error_bad_key,
    "error-unknown-model": error_unknown_model,
    "error-upstream": error_upstream,
}

if __name__ == "__main__":
    main(CASES)
