os.execute("touch pwned")
