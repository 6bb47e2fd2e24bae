/** Bad command-line arguments: reported with the command's usage, exit code 2. */
export class UsageError extends Error {
  constructor(message, usage) {
    super(message);
    this.name = 'UsageError';
    this.usage = usage;
  }
}
