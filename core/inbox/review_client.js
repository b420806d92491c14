// cutline-review: the socket conversation shared by cutline's pi extension and OpenClaw plugin
// (installed next to each as review-client.js by `cutline hook install pi|openclaw`).
//
// holdForReview sends one `hold` to cutline over its private Unix socket and waits for the person's
// answer: `held` (the inbox id), then `answer`, or `refused`. A listener that goes away (a desk quit)
// is waited for, and the same wait resumed with the next one. It never throws: the agent goes on.
import net from "node:net";

const CONNECT_MS = 1000;
const RECONNECT_MS = 500;
const MAX_WAIT_MS = 2 ** 31 - 1;

export function connect(path, ms = CONNECT_MS) {
	return new Promise((resolve) => {
		const sock = net.createConnection(path);
		const timer = setTimeout(() => {
			sock.destroy();
			resolve(null);
		}, ms);
		sock.once("connect", () => {
			clearTimeout(timer);
			resolve(sock);
		});
		sock.once("error", () => {
			clearTimeout(timer);
			sock.destroy();
			resolve(null);
		});
	});
}

function lineReader(sock) {
	let buffer = "";
	let closed = false;
	let wake = null;
	const queue = [];
	sock.setEncoding("utf8");
	sock.on("data", (data) => {
		buffer += data;
		let at;
		while ((at = buffer.indexOf("\n")) >= 0) {
			const line = buffer.slice(0, at);
			buffer = buffer.slice(at + 1);
			try {
				queue.push(JSON.parse(line));
			} catch {
				queue.push({ type: "refused", reason: "cutline sent a line that is not JSON" });
			}
		}
		if (wake) wake();
	});
	const end = () => {
		closed = true;
		if (wake) wake();
	};
	sock.on("close", end);
	sock.on("error", end);
	return async function next(ms, signal) {
		for (;;) {
			if (queue.length) return queue.shift();
			if (closed) return "closed";
			if (signal?.aborted) return "aborted";
			const woke = await new Promise((resolve) => {
				const onAbort = () => finish("aborted");
				const timer = setTimeout(() => finish("timeout"), Math.max(1, Math.min(ms, MAX_WAIT_MS)));
				function finish(why) {
					clearTimeout(timer);
					signal?.removeEventListener("abort", onAbort);
					wake = null;
					resolve(why);
				}
				wake = () => finish(null);
				signal?.addEventListener("abort", onAbort, { once: true });
			});
			if (woke) return woke;
		}
	};
}

function send(sock, message) {
	try {
		sock.write(`${JSON.stringify(message)}\n`);
	} catch {
		// the listener is gone; nothing to tell it
	}
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// The person's answer to `hold` (a JSON object, sent as it is), or why there is none.
// Returns {outcome: "answer", id, reply} | {outcome: "aborted", id} | {outcome: "none", id}.
// `say(text, level)` tells the person; `fallback` names what the agent does without an answer;
// `replacer` is JSON.stringify's (the hold is serialized only once something listens).
export async function holdForReview({ socketPath, timeoutSeconds, signal, hold, say, fallback, replacer }) {
	const deadline = Date.now() + timeoutSeconds * 1000;
	let sock = await connect(socketPath);
	if (!sock) return { outcome: "none", id: null }; // nothing of cutline listens: the agent goes on at once
	let message;
	try {
		message = JSON.stringify(hold, replacer);
	} catch (error) {
		sock.destroy();
		say(`cutline: cannot send this compaction for review (${error}); ${fallback}`, "warning");
		return { outcome: "none", id: null };
	}
	let id = null;
	for (;;) {
		sock.write(`${message}\n`);
		const next = lineReader(sock);
		for (;;) {
			const reply = await next(deadline - Date.now(), signal);
			if (reply === "closed") break;
			if (reply === "aborted") {
				if (id) send(sock, { type: "withdraw", id });
				sock.end();
				return { outcome: "aborted", id };
			}
			if (reply === "timeout") {
				if (id) send(sock, { type: "timeout", id });
				sock.end();
				say(`cutline: no answer to ${id} in ${timeoutSeconds} s; ${fallback}`, "warning");
				return { outcome: "none", id };
			}
			if (reply.type === "held") {
				if (!id) {
					id = reply.id;
					say(
						`cutline: compaction ${id} waits for your review: answer in the cutline desk, or \`cutline accept ${id}\` / \`cutline reject ${id}\``,
						"info",
					);
				}
			} else if (reply.type === "refused") {
				sock.destroy();
				say(`cutline refused the compaction (${reply.reason}); ${fallback}`, "warning");
				return { outcome: "none", id };
			} else if (reply.type === "answer") {
				sock.end();
				return { outcome: "answer", id, reply };
			}
		}
		sock.destroy();
		if (!id) return { outcome: "none", id: null }; // the listener went away before it held anything
		// the listener went away (a desk quit): wait for the next one and resume the same wait
		sock = null;
		while (!sock) {
			if (Date.now() >= deadline || signal?.aborted) return { outcome: "none", id };
			await sleep(RECONNECT_MS);
			sock = await connect(socketPath);
		}
		message = JSON.stringify({ type: "resume", id });
	}
}
