import{buildImages}from'../index.js';await buildImages()
