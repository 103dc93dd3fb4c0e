error("boom")
