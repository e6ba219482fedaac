"""Services over streams: each module opens streams for one kind of request."""
