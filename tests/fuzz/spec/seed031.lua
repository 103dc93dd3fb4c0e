kernel(3) {}
