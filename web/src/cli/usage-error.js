/** Bad command-line arguments: reported in one line with a pointer to --help, exit code 2. */
export class UsageError extends Error {
  constructor(message) {
    super(message);
    this.name = 'UsageError';
  }
}
