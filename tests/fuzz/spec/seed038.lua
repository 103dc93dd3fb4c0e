dofile "/etc/passwd"
