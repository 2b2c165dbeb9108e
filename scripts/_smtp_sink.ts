/**
 * A loopback SMTP server for benchmarks and demos (npm `smtp-server`): accepts every message,
 * counts it and prints a JSON line per second with the count. Started by the benchmark scripts.
 *
 * @module
 */
import { SMTPServer } from "smtp-server";

let received = 0;
const server = new SMTPServer({
  authOptional: true,
  disabledCommands: ["STARTTLS", "AUTH"],
  logger: false,
  onData(stream, _session, callback) {
    stream.on("data", () => {});
    stream.on("end", () => {
      received++;
      callback();
    });
  },
});
const listening = server.listen(Number(Deno.env.get("PORT") ?? 0), "127.0.0.1", () => {
  const address = listening.address();
  const port = address && typeof address === "object" ? address.port : 0;
  console.log(JSON.stringify({ message: "Listening", port }));
});
setInterval(() => console.log(JSON.stringify({ message: "Received", received })), 1000);
