require "os"
