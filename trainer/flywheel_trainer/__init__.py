"""mcp-flywheel trainer: the Python side of the train job contract (trainer/job.schema.json)."""
