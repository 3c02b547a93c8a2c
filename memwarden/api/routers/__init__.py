"""One router per area of the API."""
