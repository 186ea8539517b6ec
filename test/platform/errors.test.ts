/**
 * How much of the platform's own words an error quotes: a long body, of any shape, never pushes
 * what follows them (the correlation id) out of a Slack text, and a server's failure is one.
 */
import { describe, expect, it } from 'vitest';
import { errorFromResponse } from '../../src/platform/errors.js';

const target = { operation: 'shield.botDetection.get' };

describe("the platform's words in an error", () => {
  it('treats a Shield envelope answered with a server error as the server’s failure, its message cut', () => {
    const body = { error: { success: false, statusCode: 503, message: 'm'.repeat(20_000) } };
    const error = errorFromResponse(target, 503, JSON.stringify(body));
    expect(error.kind).toBe('server');
    expect(error.unexpected).toBe(true);
    expect(error.userMessage).toBe(`${'m'.repeat(1_000)}…`);
    expect(error.shownWith('c-0123456789')).toMatch(/correlation id c-0123456789/);
  });

  it('words a server error’s envelope that says nothing of itself as the server’s failure, by the HTTP status', () => {
    const body = { error: { success: false, statusCode: 404, message: null } };
    const error = errorFromResponse(target, 502, JSON.stringify(body));
    expect(error.kind).toBe('server');
    expect(error.userMessage).toBe('The Shield API failed (HTTP 502).');
  });

  it('reads words the platform sent empty or blank as none: the status speaks instead', () => {
    const problem = errorFromResponse(target, 503, JSON.stringify({ status: 503, title: ' ', detail: '' }));
    expect(problem).toMatchObject({ kind: 'server', userMessage: 'The platform failed (HTTP 503).' });
    const titled = errorFromResponse(
      target,
      503,
      JSON.stringify({ title: 'Service Unavailable', detail: '' }),
    );
    expect(titled.userMessage).toBe('Service Unavailable');
    const envelope = errorFromResponse(
      target,
      502,
      JSON.stringify({ error: { success: false, message: '  ' } }),
    );
    expect(envelope.userMessage).toBe('The Shield API failed (HTTP 502).');
  });

  it('treats an API error answered with a server error as the server’s failure', () => {
    const error = errorFromResponse(target, 500, JSON.stringify({ Message: 'boom', ErrorKey: 'x' }));
    expect(error).toMatchObject({ kind: 'server', userMessage: 'boom (x)' });
    expect(error.unexpected).toBe(true);
    const blank = errorFromResponse(target, 500, JSON.stringify({ Message: ' ', ErrorKey: 'x' }));
    expect(blank.userMessage).toBe('The platform failed (HTTP 500). Error key: x.');
  });

  it('keeps a Shield envelope refused for the request as the Shield API’s refusal', () => {
    const body = { error: { success: false, errorKey: 'invalid_plan_type.bot_detection', message: null } };
    const error = errorFromResponse(target, 400, JSON.stringify(body));
    expect(error.kind).toBe('shield-error');
    expect(error.unexpected).toBe(false);
  });

  it('cuts an envelope’s error key, and counts the characters Slack text writes longer', () => {
    const body = { error: { success: false, errorKey: 'k'.repeat(500), message: '&'.repeat(1_000) } };
    const error = errorFromResponse(target, 400, JSON.stringify(body));
    // `&` is written `&amp;` in Slack text: 200 of them are the 1,000 characters quoted.
    expect(error.userMessage).toBe(`${'&'.repeat(200)}… (${'k'.repeat(200)}…)`);
    expect(error.errorKey).toBe(`${'k'.repeat(200)}…`);
  });

  it('never cuts a character in half', () => {
    const body = { Message: `${'x'.repeat(999)}😀 and more` };
    const error = errorFromResponse(target, 400, JSON.stringify(body));
    expect(error.userMessage).toBe(`${'x'.repeat(999)}…`);
    // No lone surrogate: every high one is followed by a low one.
    expect(/[\ud800-\udbff](?![\udc00-\udfff])/.test(error.userMessage)).toBe(false);
  });

  it('cuts a long field and error key of an API error as it cuts its message', () => {
    const body = { Message: 'x'.repeat(5_000), Field: 'f'.repeat(10_000), ErrorKey: 'k'.repeat(10_000) };
    const error = errorFromResponse(target, 400, JSON.stringify(body));
    expect(error.userMessage).toBe(`${'x'.repeat(1_000)}… Field: ${'f'.repeat(200)}…. (${'k'.repeat(200)}…)`);
  });
});
