"""The inbox: compactions an agent holds back for a person's word, the private channel they come by, and the answers."""
