"""A loopback stand-in for the model APIs the agent CLIs call, for `scripts/doors`.

Speaks Anthropic messages (Claude Code), OpenAI responses and chat completions (Codex, pi,
opencode) and Gemini's generateContent (Gemini CLI), streamed or not. Every request is logged
whole, one JSON object a line (`{"path": ..., "body": ...}`), so the caller can look for the
exact bytes the summary should have. The answer is a fixed short reply; with `--tool`, the
first request that offers a handbook search tool gets a call to it instead, and the request
carrying its result is answered in text.

    python3 mock.py PORT LOG [--tool QUERY]
"""

import json
import re
import sys
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PORT, LOG = int(sys.argv[1]), sys.argv[2]
TOOL_QUERY = sys.argv[sys.argv.index("--tool") + 1] if "--tool" in sys.argv else None
REPLY = "hi from the mock"
# A handbook search tool, however each CLI names an MCP server's tools.
SEARCH = re.compile(r"(^|[_.\-:])search$")


def search_tool(names):
    named = [n for n in names if "handbook" in n and SEARCH.search(n)]
    return named[0] if named else ("search" if "search" in names else None)


def tool_names(body):
    names = []
    for tool in body.get("tools") or []:
        names.append(tool.get("name") or (tool.get("function") or {}).get("name") or "")
        names.extend(f.get("name", "") for f in tool.get("functionDeclarations") or [])
    return [n for n in names if n]


def has_tool_result(body):
    text = json.dumps(body)
    return any(k in text for k in ('"tool_result"', '"role": "tool"', '"functionResponse"', '"function_call_output"'))


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply_json(self, obj, status=200):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def reply_sse(self, events, done=False):
        data = b"".join(
            (f"event: {name}\n" if name else "").encode() + b"data: " + json.dumps(obj).encode() + b"\n\n"
            for name, obj in events
        ) + (b"data: [DONE]\n\n" if done else b"")
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        with open(LOG, "a") as log:
            log.write(json.dumps({"method": "GET", "path": self.path, "body": ""}) + "\n")
        self.reply_json({"object": "list", "data": [{"id": "mock-1", "object": "model", "created": 0, "owned_by": "mock"}],
                         "models": [{"name": "models/gemini-2.5-pro"}]})

    def do_POST(self):
        raw = self.rfile.read(int(self.headers.get("content-length") or 0)).decode("utf-8", "replace")
        with open(LOG, "a") as log:
            log.write(json.dumps({"method": "POST", "path": self.path, "body": raw}) + "\n")
        try:
            body = json.loads(raw or "{}")
        except ValueError:
            body = {}
        tool = None
        if TOOL_QUERY and not has_tool_result(body):
            tool = search_tool(tool_names(body))
        args = {"query": TOOL_QUERY or ""}
        path = self.path
        if "count_tokens" in path or ":countTokens" in path:
            return self.reply_json({"input_tokens": 10, "totalTokens": 10})
        if "/messages" in path:
            return self.anthropic(body, tool, args)
        if "/responses" in path:
            return self.openai_responses(body, tool, args)
        if "/chat/completions" in path:
            return self.chat(body, tool, args)
        if "generateContent" in path or "GenerateContent" in path:
            return self.gemini(path, tool, args)
        self.reply_json({"error": {"message": f"mock: no route for {path}"}}, 404)

    def anthropic(self, body, tool, args):
        mid = "msg_" + uuid.uuid4().hex[:12]
        usage = {"input_tokens": 10, "output_tokens": 5}
        if tool:
            block = {"type": "tool_use", "id": "toolu_" + uuid.uuid4().hex[:12], "name": tool, "input": args}
            stop = "tool_use"
        else:
            block = {"type": "text", "text": REPLY}
            stop = "end_turn"
        message = {"id": mid, "type": "message", "role": "assistant", "model": body.get("model", "mock"),
                   "content": [block], "stop_reason": stop, "stop_sequence": None, "usage": usage}
        if not body.get("stream"):
            return self.reply_json(message)
        start = dict(block, input={}) if tool else dict(block, text="")
        delta = ({"type": "input_json_delta", "partial_json": json.dumps(args)} if tool
                 else {"type": "text_delta", "text": REPLY})
        self.reply_sse([
            ("message_start", {"type": "message_start", "message": dict(message, content=[], stop_reason=None)}),
            ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": start}),
            ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            ("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                               "usage": {"output_tokens": 5}}),
            ("message_stop", {"type": "message_stop"}),
        ])

    def openai_responses(self, body, tool, args):
        rid = "resp_" + uuid.uuid4().hex[:12]
        if tool:
            item = {"type": "function_call", "id": "fc_" + uuid.uuid4().hex[:8], "call_id": "call_" + uuid.uuid4().hex[:8],
                    "name": tool, "arguments": json.dumps(args), "status": "completed"}
        else:
            item = {"type": "message", "id": "msg_" + uuid.uuid4().hex[:8], "role": "assistant", "status": "completed",
                    "content": [{"type": "output_text", "text": REPLY, "annotations": []}]}
        usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 5,
                 "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 15}
        response = {"id": rid, "object": "response", "created_at": int(time.time()), "status": "completed",
                    "model": body.get("model", "mock"), "output": [item], "usage": usage}
        if not body.get("stream"):
            return self.reply_json(response)
        self.reply_sse([
            ("response.created", {"type": "response.created", "response": dict(response, status="in_progress", output=[])}),
            ("response.output_item.added", {"type": "response.output_item.added", "output_index": 0, "item": item}),
            ("response.output_item.done", {"type": "response.output_item.done", "output_index": 0, "item": item}),
            ("response.completed", {"type": "response.completed", "response": response}),
        ])

    def chat(self, body, tool, args):
        base = {"id": "chatcmpl-mock", "created": int(time.time()), "model": body.get("model", "mock-1")}
        usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
        if tool:
            call = {"id": "call_" + uuid.uuid4().hex[:8], "type": "function",
                    "function": {"name": tool, "arguments": json.dumps(args)}}
            message, finish = {"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls"
        else:
            message, finish = {"role": "assistant", "content": REPLY}, "stop"
        if not body.get("stream"):
            return self.reply_json(dict(base, object="chat.completion", usage=usage,
                                        choices=[{"index": 0, "message": message, "finish_reason": finish}]))
        delta = dict(message)
        if tool:
            delta["tool_calls"] = [dict(message["tool_calls"][0], index=0)]
        chunk = dict(base, object="chat.completion.chunk")
        self.reply_sse([
            (None, dict(chunk, choices=[{"index": 0, "delta": delta, "finish_reason": None}])),
            (None, dict(chunk, choices=[{"index": 0, "delta": {}, "finish_reason": finish}], usage=usage)),
        ], done=True)

    def gemini(self, path, tool, args):
        part = {"functionCall": {"name": tool, "args": args}} if tool else {"text": REPLY}
        if not tool and "stream" not in path.lower():
            # Gemini CLI's router asks for a JSON verdict without streaming.
            part = {"text": '{"complexity_reasoning":"simple","complexity_score":10}'}
        payload = {"candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
                   "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
                   "modelVersion": "gemini-2.5-pro"}
        if "alt=sse" in path:
            return self.reply_sse([(None, payload)])
        self.reply_json(payload)


ThreadingHTTPServer(("127.0.0.1", PORT), Handler).serve_forever()
