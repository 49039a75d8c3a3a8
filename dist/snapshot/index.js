import{snapshot}from'../index.js';await snapshot()
