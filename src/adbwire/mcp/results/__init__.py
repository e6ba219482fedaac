"""What a tool answers: the envelope, typed failures, paging, shared schemas."""
