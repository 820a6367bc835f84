print("upgrade")
