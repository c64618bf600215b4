"""What the student release must not hold: the release check (instructor/release/check_no_answers.py runs it)."""
