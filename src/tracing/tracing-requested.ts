/**
 * True when the environment asks for traces to be exported: `OTEL_EXPORTER_OTLP_ENDPOINT` or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is set (spec section 13). Deliberately free of any
 * OpenTelemetry import: the entry point reads it to decide whether to load the SDK at all.
 */
export function tracingRequested(env: NodeJS.ProcessEnv): boolean {
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

/** `defaultName`, unless `OTEL_SERVICE_NAME` or `OTEL_RESOURCE_ATTRIBUTES` names the service. */
export function serviceNameDefault(env: NodeJS.ProcessEnv, defaultName: string): string | undefined {
  const named = Boolean(env.OTEL_SERVICE_NAME?.trim()) || /(?:^|,)\s*service\.name\s*=/.test(env.OTEL_RESOURCE_ATTRIBUTES ?? '');
  return named ? undefined : defaultName;
}
