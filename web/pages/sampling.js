// The Sampling panel's values as generate()/chat() options (an empty field: the default).
const $ = (selector) => document.querySelector(selector);

export function samplingOptions() {
  const number = (id) => {
    const value = $(id).value.trim();
    return value === '' ? undefined : Number(value);
  };
  const stop = $('#stop').value;
  return {
    maxTokens: number('#max-tokens'), temperature: number('#temperature'), topK: number('#top-k'), topP: number('#top-p'),
    minP: number('#min-p'), repeatPenalty: number('#repeat-penalty'), seed: number('#seed'), stop: stop ? [stop] : [],
  };
}

/** "N tokens · X tokens/s · why it ended" for a finished generation's Completion. */
export function speedLine(completion) {
  const perSecond = completion.timings?.decodeTokensPerSecond ?? 0;
  return `${completion.tokens.length} tokens generated · ${perSecond.toFixed(1)} tokens/s · ${completion.promptTokens} prompt tokens`
    + ` · ${completion.finishReason}`;
}
