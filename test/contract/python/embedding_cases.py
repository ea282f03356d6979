"""Embedding calls of the official Python SDKs against the gateway, for python-embeddings.test.ts.

Reads {"origin", "key", "openai_model", "gemini_model"} as JSON on stdin and prints one JSON
object: what each SDK call returned (vectors as lists of floats, usage), or the error it raised.
"""
import json
import sys

from google import genai
from google.genai import types
from openai import OpenAI


def main() -> None:
    job = json.load(sys.stdin)
    origin, key = job["origin"], job["key"]
    out = {}
    client = OpenAI(api_key=key, base_url=f"{origin}/v1", max_retries=0)
    for model_key in ("openai_model", "gemini_model"):
        model = job[model_key]
        single = client.embeddings.create(model=model, input="hello brave world")
        batch = client.embeddings.create(
            model=model, input=["one", "two three"], dimensions=4, encoding_format="float"
        )
        b64 = client.embeddings.create(model=model, input=["four"], encoding_format="base64")
        out[model_key] = {
            "single": [list(map(float, d.embedding)) for d in single.data],
            "batch": [list(map(float, d.embedding)) for d in batch.data],
            "batch_tokens": batch.usage.prompt_tokens,
            "base64": [d.embedding for d in b64.data],
        }
        ai = genai.Client(api_key=key, http_options=types.HttpOptions(base_url=origin))
        several = ai.models.embed_content(
            model=model,
            contents=["first", "second"],
            config=types.EmbedContentConfig(output_dimensionality=4),
        )
        out[model_key]["genai"] = [list(e.values) for e in several.embeddings]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
