from lib.greeting import greet

print(greet("sandbox"))
