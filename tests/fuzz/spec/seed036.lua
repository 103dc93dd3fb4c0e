io.open("/etc/passwd")
