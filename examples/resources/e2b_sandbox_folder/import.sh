# A folder is imported by <sandbox_id>:<destination>. Every regular file under the destination
# becomes the resource's (each is downloaded once to hash it), so import a directory that holds
# only the uploaded files. The first plan then records source and the patterns, which the
# sandbox cannot tell: an update in place that writes no file when the files match.
terraform import e2b_sandbox_folder.app i1a2b3c4d5e6f7g8h9:/home/user/app
