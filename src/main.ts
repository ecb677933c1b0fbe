import { ConfigError, loadConfig } from "./config.ts";
import { startService } from "./service.ts";

let config;
try {
  config = loadConfig();
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(err.message);
    process.exit(1);
  }
  throw err;
}

const service = await startService(config).catch((err) => {
  console.error("failed to start:", err);
  process.exit(1);
});

let signals = 0;
const shutdown = async (signal: string) => {
  if (++signals > 1) {
    service.log.warn({ signal }, "second signal: exiting at once");
    process.exit(1);
  }
  service.log.info({ signal }, "shutting down");
  const deadline = setTimeout(() => {
    service.log.error("shutdown took too long; exiting");
    process.exit(1);
  }, (config.shutdownTimeoutSeconds + 5) * 1000);
  await service.stop();
  clearTimeout(deadline);
  service.log.info("stopped");
  process.exit(0);
};
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
