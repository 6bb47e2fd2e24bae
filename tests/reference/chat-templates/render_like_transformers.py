#!/usr/bin/env python3
"""Renders chat templates the way Python transformers' apply_chat_template
does (transformers/utils/chat_template_utils.py): jinja2's
ImmutableSandboxedEnvironment with trim_blocks and lstrip_blocks, the
loopcontrols extension, a tojson filter that keeps non-ASCII, and the
raise_exception and strftime_now globals; rendered with messages, tools=None,
documents=None, add_generation_prompt, the special tokens and the extra
keyword arguments.

Reads a JSON list of {template, messages, add_generation_prompt, tokens,
kwargs} on stdin, writes a JSON list of {"text": ...} or {"error": ...}."""
import json
import sys
from datetime import datetime

import jinja2
import jinja2.ext
from jinja2.sandbox import ImmutableSandboxedEnvironment


def raise_exception(message):
    raise jinja2.exceptions.TemplateError(message)


def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def strftime_now(format):
    return datetime.now().strftime(format)


def environment():
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    return env


def main():
    env = environment()
    out = []
    for job in json.load(sys.stdin):
        try:
            template = env.from_string(job["template"])
            text = template.render(messages=job["messages"], tools=None, documents=None,
                                   add_generation_prompt=job["add_generation_prompt"],
                                   **job["tokens"], **job["kwargs"])
            out.append({"text": text})
        except jinja2.exceptions.TemplateError as e:
            out.append({"error": str(e)})
    json.dump(out, sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    main()
